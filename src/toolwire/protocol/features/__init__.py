"""What a server publishes (tools, resources, prompts, completion): registries and their methods."""

"""Decision makers: the rule-based playbook (default), a scripted model, OpenAI-compatible."""

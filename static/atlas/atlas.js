// Atlas page behaviour that htmx attributes cannot express on their own.

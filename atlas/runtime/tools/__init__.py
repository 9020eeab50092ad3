"""Tool registry, the gateway that runs tools, and the four due-diligence tools."""

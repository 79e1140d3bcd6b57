"""The run core: prepare, execute, summarise and export a run, its workers, sample loop, epochs and budget."""

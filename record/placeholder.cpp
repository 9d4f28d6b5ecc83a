// Placeholder so the target has a source; removed once real sources exist.

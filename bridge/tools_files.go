package bridge

// addFileTools registers the metadata, listing and file-management tools.
func (b *binding) addFileTools() {}

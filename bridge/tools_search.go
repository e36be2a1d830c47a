package bridge

// addSearchTools registers glob and grep.
func (b *binding) addSearchTools() {}

package bridge

// addEditTools registers edit_text_file and read_media_file.
func (b *binding) addEditTools() {}

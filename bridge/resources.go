package bridge

// addResources registers the file:// resource template and its
// subscriptions.
func (b *binding) addResources() {}

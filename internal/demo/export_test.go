package demo

// SetRemoveAll replaces how the temporary workspace is removed, for a
// test, until restore is called.
func SetRemoveAll(f func(string) error) (restore func()) {
	old := removeAll
	removeAll = f
	return func() { removeAll = old }
}

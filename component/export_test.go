package component

// Filled returns c with every zero field given its default, as New and
// each session's settings get them, for the tests of package
// component_test (which may import internal/config: this package may not).
func Filled(c Config) (Config, error) {
	err := c.fill()
	return c, err
}

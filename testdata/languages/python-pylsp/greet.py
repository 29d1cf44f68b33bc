"""greet.py defines greet, which main.py uses."""


def greet(name):
    """Return a greeting for name."""
    return "hello, " + name

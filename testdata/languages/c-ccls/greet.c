#include "greet.h"

const char *greet(const char *name) { return name; }

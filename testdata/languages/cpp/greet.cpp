#include "greet.hpp"

std::string greet(const std::string &name) { return "hello, " + name; }

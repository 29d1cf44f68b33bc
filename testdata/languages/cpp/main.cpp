#include <iostream>
#include "greet.hpp"

int main() {
  std::cout << greet("world") << std::endl;
  return undefined_count;
}

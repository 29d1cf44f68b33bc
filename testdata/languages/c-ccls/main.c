#include <stdio.h>
#include "greet.h"

int main(void) {
  puts(greet("world"));
  return undefined_count;
}

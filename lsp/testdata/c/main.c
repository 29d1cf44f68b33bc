#include <stdio.h>

static const char *greet(const char *name) { return name; }

int main(void) {
  const char *s = "日本語😀"; puts(greet(s));
  puts(greet("x")); return undefined_var;
}

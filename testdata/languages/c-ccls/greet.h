#ifndef GREET_H
#define GREET_H
const char *greet(const char *name);
#endif

// lib.js defines greet, which main.js uses.
export function greet(name) {
  return "hello, " + name;
}

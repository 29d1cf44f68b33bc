// lib.ts defines greet, which main.ts uses.
export function greet(name: string): string {
  return "hello, " + name;
}

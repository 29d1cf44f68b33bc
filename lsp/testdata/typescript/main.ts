function greet(name: string): string {
  return "hello " + name;
}

const s = "日本語😀"; console.log(greet(s));
console.log(greet("x"), undefinedThing);

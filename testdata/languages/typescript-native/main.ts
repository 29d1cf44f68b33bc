import { greet } from "./lib";

console.log(greet("world"));
console.log(undefinedThing);

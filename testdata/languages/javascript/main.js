// @ts-check
import { greet } from "./lib.js";

const count = 1;
console.log(greet("world"));
count = 2;

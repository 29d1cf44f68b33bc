#!/usr/bin/env bash
# lib.sh defines greet, which main.sh uses.

greet() {
	echo "hello, $1"
}

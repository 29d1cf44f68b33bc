#!/usr/bin/env bash
# shellcheck source=lib.sh
. ./lib.sh

greet "world"
echo $undefined_name

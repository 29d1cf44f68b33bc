<?php

function greet(string $name): string
{
    return "hello, " . $name;
}

<?php

require_once __DIR__ . '/lib.php';

echo greet("world");
echo greet(1, 2, 3)

<?php
echo 'hi';

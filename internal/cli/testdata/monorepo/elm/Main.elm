module Main exposing (main)

(ns core)

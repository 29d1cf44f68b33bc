{ outputs = { self }: { }; }

module example.com/greeter

go 1.22

require github.com/a-h/templ v0.3.1118

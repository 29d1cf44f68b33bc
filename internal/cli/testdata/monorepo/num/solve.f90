program solve
end program solve

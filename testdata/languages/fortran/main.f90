program main
  use greet_mod
  implicit none
  integer :: count
  integer :: count
  call greet("world")
  call greet("again")
end program main

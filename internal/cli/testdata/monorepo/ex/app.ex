defmodule App do
end

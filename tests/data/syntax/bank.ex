defmodule Bank.Account do
  @moduledoc """
  A bank account with a balance.
  """

  defstruct owner: nil, balance: 0

  @doc "Opens an account."
  def open(owner) do
    %__MODULE__{owner: owner}
  end

  def deposit(%__MODULE__{} = account, amount) when amount > 0 do
    %{account | balance: account.balance + amount}
  end

  def withdraw(account, amount) do
    if amount <= account.balance do
      {:ok, %{account | balance: account.balance - amount}}
    else
      {:error, :insufficient_funds}
    end
  end

  defp log(message) do
    IO.puts(message)
  end
end

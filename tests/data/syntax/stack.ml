(* A persistent stack. *)
type 'a t = { items : 'a list; size : int }

let empty = { items = []; size = 0 }

let push x s = { items = x :: s.items; size = s.size + 1 }

let pop s =
  match s.items with
  | [] -> None
  | x :: rest -> Some (x, { items = rest; size = s.size - 1 })

module Bounded = struct
  type 'a bounded = { stack : 'a t; limit : int }

  let create limit = { stack = empty; limit }

  let push x b =
    if b.stack.size >= b.limit then None
    else Some { b with stack = push x b.stack }
end

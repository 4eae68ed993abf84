-module(kv_store).
-export([new/0, put/3, get/2, delete/2]).

%% A key-value store on top of maps.

new() ->
    #{}.

put(Key, Value, Store) ->
    maps:put(Key, Value, Store).

get(Key, Store) ->
    case maps:find(Key, Store) of
        {ok, Value} -> {ok, Value};
        error -> not_found
    end.

delete(Key, Store) ->
    maps:remove(Key, Store).

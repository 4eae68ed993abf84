FOO=flaskenv
BAR=bar
EGGS=0

package main

import "syscall"

var syscallSIGTERM = syscall.SIGTERM

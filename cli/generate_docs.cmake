# Run after every link of `inmanta` (cli/CMakeLists.txt): the man page per subcommand and the
# shell completion scripts, made by the binary from its command-line definitions so that they
# follow every flag. -DINMANTA=<binary> -DOUT=<build tree>
file(REMOVE_RECURSE ${OUT}/man/man1 ${OUT}/completions)
execute_process(COMMAND ${INMANTA} man ${OUT}/man/man1 COMMAND_ERROR_IS_FATAL ANY)
file(MAKE_DIRECTORY ${OUT}/completions)
execute_process(COMMAND ${INMANTA} completion bash OUTPUT_FILE ${OUT}/completions/inmanta.bash COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${INMANTA} completion zsh OUTPUT_FILE ${OUT}/completions/_inmanta COMMAND_ERROR_IS_FATAL ANY)
execute_process(COMMAND ${INMANTA} completion fish OUTPUT_FILE ${OUT}/completions/inmanta.fish COMMAND_ERROR_IS_FATAL ANY)

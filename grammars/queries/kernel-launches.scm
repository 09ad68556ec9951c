; `kernel<<<grid, block, shmem, stream>>>(args)`: tree-sitter-cuda has no launch node of its
; own; a launch is a call_expression with a kernel_call_syntax child.
(call_expression
  function: (_) @kernel
  (kernel_call_syntax) @config
  arguments: (argument_list) @args) @launch

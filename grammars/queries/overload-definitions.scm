; Function definitions that may duplicate what HIP's headers define: operators (on vector
; types, checked in code) and the atomics HIP provides for float/double.
; Used by src/translate/overloads.rs.
(function_definition
  declarator: (_) @declarator) @definition

/* The loop invariant i == j is needed; it is an atom of the error condition.
 * expect: cegar=true */
extern int __VERIFIER_nondet_int(void);
int main(void) {
  int i = 0, j = 0;
  while (__VERIFIER_nondet_int()) { i++; j++; }
  if (i != j) { ERROR: ; }
  return 0;
}

/* x is zero, so its first byte is zero and ERROR is unreachable. Memory as
   one array per access width does not relate the int write to the byte
   read: a path through both is no counterexample.
   expect: symexec=unknown cegar=true|unknown */
int main(void) {
  int x;
  char *c = (char *)&x;
  x = 0;
  if (*c != 0) {
    goto ERROR;
  }
  return 0;
ERROR:
  return 1;
}

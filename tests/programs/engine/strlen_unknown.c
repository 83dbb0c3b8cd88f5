/* strlen of a string that is not a literal is not modelled: no verdict.
 * expect: symexec=unknown cegar=true|unknown */
unsigned long strlen(const char *);
int main(void)
{
  char *s = "abc";
  if (strlen(s) != 3) {
  ERROR:
    return 1;
  }
  return 0;
}

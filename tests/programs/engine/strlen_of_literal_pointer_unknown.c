/* `s` points to a literal, whose length is 3 whatever LDV's assumptions
 * say of other strings: the error is unreachable, but mpv does not model
 * the length of a literal through a pointer, so it gives no verdict (and
 * never FALSE).
 * expect: cegar=true|unknown */
unsigned long strlen(const char *);
extern void report(const char *s);
int main(void)
{
  const char *s = "abc";
  report(s);
  if (strlen(s) != 3) {
  ERROR:
    return 1;
  }
  return 0;
}

/* A string literal's bytes are known.
 * expect: symexec=false cegar=false */
unsigned long strlen(const char *);
int main(void)
{
  char *s = "A\x42";
  if (s[0] == 65 && s[1] == 66 && s[2] == 0 && strlen("abc") == 3
      && sizeof("a\n") == 3) {
  ERROR:
    return 1;
  }
  return 0;
}

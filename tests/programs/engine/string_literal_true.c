/* A string literal's bytes are known: no path reaches the error. */
unsigned long strlen(const char *);
static const char *name = "dev";
int main(void)
{
  char *s = "A";
  if (s[0] != 65 || s[1] != 0)
    goto ERROR;
  if (strlen("abc") != 3 || name[2] != 'v')
    goto ERROR;
  return 0;
ERROR:
  return 1;
}

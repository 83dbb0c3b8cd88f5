/* The error needs the environment's pointer to be the global's address:
   reads through it may not skip the global's initialisation.
   expect: cegar=false */
int g = 5;
int h = 6;
int main(void) {
  int *p;
  if (p == &g) {
    if (*p == 5) {
      ERROR: ;
    }
  }
  return 0;
}

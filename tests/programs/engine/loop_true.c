/* expect: symexec=true cegar=true */
int main(void) { int i = 0; int s = 0; while (i < 3) { s = s + 2; i++; } if (s != 6) { ERROR: ; } return 0; }

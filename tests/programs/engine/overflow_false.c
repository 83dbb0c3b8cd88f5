/* expect: symexec=false cegar=false */
int main(void) { unsigned int x = 4294967295u; x = x + 1; if (x == 0) { ERROR: ; } return 0; }

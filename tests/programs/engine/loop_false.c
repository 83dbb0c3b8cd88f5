/* expect: symexec=false cegar=false */
int main(void) { unsigned char c = 250; while (c != 3) c++; if (c == 3) { ERROR: ; } return 0; }

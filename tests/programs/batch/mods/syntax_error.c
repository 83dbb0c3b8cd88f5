/* Not C: mpv verify stops with a parse error naming this file. */
int main(void) { return 0 +; }

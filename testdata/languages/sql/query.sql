SELECT id, name FROM users WHERE id = 1;
SELEC name FROM users;

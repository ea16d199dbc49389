"""The admin's services: studies, people, data, plans, operations, participants, publishing (each
takes an actor and checks the admin role in its transaction)."""

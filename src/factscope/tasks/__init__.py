"""factscope.tasks"""
